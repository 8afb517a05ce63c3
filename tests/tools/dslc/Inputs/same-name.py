import helion


@helion.kernel
def copy(x):
    pass


def helper(y):
    pass


@helion.kernel
def copy(x, y):
    pass
