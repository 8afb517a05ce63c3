x = lambda *a: 1
y = lambda a, a: 1
z = lambda a=1, b: 1
w = lambda a b: 1
