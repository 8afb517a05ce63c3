import helion


@helion.kernel
def a(x):
    pass


@helion.kernel
def b(x):
    pass
