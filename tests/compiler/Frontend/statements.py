# Every statement kind, with locations.
# RUN: dslc %s --emit=ast | FileCheck --strict-whitespace --match-full-lines %s
"""Module docstring."""
from __future__ import annotations
import a.b as c, d
from .. import x as y, z
from m import (p,
               q as r,)
from n import *
N: int = 4
K = M = 2
def f(x, y: int = 1, *args, k, **kw) -> None:
    """Doc."""
    _, w = x.size()
    a, b = 1, 2
    t += 1
    t.u[0] //= 2
    v: hl.constexpr
    for i, j in zip(a, b):
        continue
    else:
        pass
    while i < 3:
        break
    if a:
        pass
    elif b:
        return
    else:
        return a, b
    assert a, "msg"
    g(1); h(2)
    if a: return 1
    for x in a, b:
        x.y = [*a]
    def g(p, /, q, *, r=2):
        pass
def plain():
    pass
# CHECK:(module "{{.*}}statements.py"
# CHECK-NEXT:  (docstring "Module docstring.")
# CHECK-NEXT:  (import-from @4:1 __future__
# CHECK-NEXT:    (alias annotations))
# CHECK-NEXT:  (import @5:1
# CHECK-NEXT:    (alias a.b as c)
# CHECK-NEXT:    (alias d))
# CHECK-NEXT:  (import-from @6:1 ..
# CHECK-NEXT:    (alias x as y)
# CHECK-NEXT:    (alias z))
# CHECK-NEXT:  (import-from @7:1 m
# CHECK-NEXT:    (alias p)
# CHECK-NEXT:    (alias q as r))
# CHECK-NEXT:  (import-from @9:1 n
# CHECK-NEXT:    (alias *))
# CHECK-NEXT:  (ann-assign @10:1
# CHECK-NEXT:    (name @10:1 N)
# CHECK-NEXT:    (name @10:4 int)
# CHECK-NEXT:    (int @10:10 4))
# CHECK-NEXT:  (assign @11:1
# CHECK-NEXT:    (name @11:1 K)
# CHECK-NEXT:    (name @11:5 M)
# CHECK-NEXT:    (int @11:9 2))
# CHECK-NEXT:  (def @12:1 f
# CHECK-NEXT:    (param @12:7 x)
# CHECK-NEXT:    (param @12:10 y
# CHECK-NEXT:      (annotation
# CHECK-NEXT:        (name @12:13 int))
# CHECK-NEXT:      (default
# CHECK-NEXT:        (int @12:19 1)))
# CHECK-NEXT:    (param @12:22 *args)
# CHECK-NEXT:    (param @12:29 k kwonly)
# CHECK-NEXT:    (param @12:32 **kw)
# CHECK-NEXT:    (returns
# CHECK-NEXT:      (none @12:41))
# CHECK-NEXT:    (docstring "Doc.")
# CHECK-NEXT:    (body
# CHECK-NEXT:      (assign @14:5
# CHECK-NEXT:        (tuple @14:5
# CHECK-NEXT:          (name @14:5 _)
# CHECK-NEXT:          (name @14:8 w))
# CHECK-NEXT:        (call @14:12
# CHECK-NEXT:          (attr @14:12 size
# CHECK-NEXT:            (name @14:12 x))))
# CHECK-NEXT:      (assign @15:5
# CHECK-NEXT:        (tuple @15:5
# CHECK-NEXT:          (name @15:5 a)
# CHECK-NEXT:          (name @15:8 b))
# CHECK-NEXT:        (tuple @15:12
# CHECK-NEXT:          (int @15:12 1)
# CHECK-NEXT:          (int @15:15 2)))
# CHECK-NEXT:      (aug-assign @16:5 +=
# CHECK-NEXT:        (name @16:5 t)
# CHECK-NEXT:        (int @16:10 1))
# CHECK-NEXT:      (aug-assign @17:5 //=
# CHECK-NEXT:        (subscript @17:5
# CHECK-NEXT:          (attr @17:5 u
# CHECK-NEXT:            (name @17:5 t))
# CHECK-NEXT:          (int @17:9 0))
# CHECK-NEXT:        (int @17:16 2))
# CHECK-NEXT:      (ann-assign @18:5
# CHECK-NEXT:        (name @18:5 v)
# CHECK-NEXT:        (attr @18:8 constexpr
# CHECK-NEXT:          (name @18:8 hl)))
# CHECK-NEXT:      (for @19:5
# CHECK-NEXT:        (tuple @19:9
# CHECK-NEXT:          (name @19:9 i)
# CHECK-NEXT:          (name @19:12 j))
# CHECK-NEXT:        (call @19:17
# CHECK-NEXT:          (name @19:17 zip)
# CHECK-NEXT:          (name @19:21 a)
# CHECK-NEXT:          (name @19:24 b))
# CHECK-NEXT:        (body
# CHECK-NEXT:          (continue @20:9))
# CHECK-NEXT:        (else
# CHECK-NEXT:          (pass @22:9)))
# CHECK-NEXT:      (while @23:5
# CHECK-NEXT:        (compare @23:11 <
# CHECK-NEXT:          (name @23:11 i)
# CHECK-NEXT:          (int @23:15 3))
# CHECK-NEXT:        (body
# CHECK-NEXT:          (break @24:9)))
# CHECK-NEXT:      (if @25:5
# CHECK-NEXT:        (name @25:8 a)
# CHECK-NEXT:        (then
# CHECK-NEXT:          (pass @26:9))
# CHECK-NEXT:        (else
# CHECK-NEXT:          (elif @27:5
# CHECK-NEXT:            (name @27:10 b)
# CHECK-NEXT:            (then
# CHECK-NEXT:              (return @28:9))
# CHECK-NEXT:            (else
# CHECK-NEXT:              (return @30:9
# CHECK-NEXT:                (tuple @30:16
# CHECK-NEXT:                  (name @30:16 a)
# CHECK-NEXT:                  (name @30:19 b)))))))
# CHECK-NEXT:      (assert @31:5
# CHECK-NEXT:        (name @31:12 a)
# CHECK-NEXT:        (str @31:15 "msg"))
# CHECK-NEXT:      (expr @32:5
# CHECK-NEXT:        (call @32:5
# CHECK-NEXT:          (name @32:5 g)
# CHECK-NEXT:          (int @32:7 1)))
# CHECK-NEXT:      (expr @32:11
# CHECK-NEXT:        (call @32:11
# CHECK-NEXT:          (name @32:11 h)
# CHECK-NEXT:          (int @32:13 2)))
# CHECK-NEXT:      (if @33:5
# CHECK-NEXT:        (name @33:8 a)
# CHECK-NEXT:        (then
# CHECK-NEXT:          (return @33:11
# CHECK-NEXT:            (int @33:18 1))))
# CHECK-NEXT:      (for @34:5
# CHECK-NEXT:        (name @34:9 x)
# CHECK-NEXT:        (tuple @34:14
# CHECK-NEXT:          (name @34:14 a)
# CHECK-NEXT:          (name @34:17 b))
# CHECK-NEXT:        (body
# CHECK-NEXT:          (assign @35:9
# CHECK-NEXT:            (attr @35:9 y
# CHECK-NEXT:              (name @35:9 x))
# CHECK-NEXT:            (list @35:15
# CHECK-NEXT:              (starred @35:16
# CHECK-NEXT:                (name @35:17 a))))))
# CHECK-NEXT:      (def @36:5 g
# CHECK-NEXT:        (param @36:11 p posonly)
# CHECK-NEXT:        (param @36:17 q)
# CHECK-NEXT:        (param @36:23 r kwonly
# CHECK-NEXT:          (default
# CHECK-NEXT:            (int @36:25 2)))
# CHECK-NEXT:        (body
# CHECK-NEXT:          (pass @37:9)))))
# CHECK-NEXT:  (def @38:1 plain
# CHECK-NEXT:    (body
# CHECK-NEXT:      (pass @39:5))))
