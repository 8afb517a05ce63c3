# Operator precedence and associativity (Python's), literals, calls,
# subscripts and slices, displays.
# RUN: dslc %s --emit=ast | FileCheck --strict-whitespace --match-full-lines %s
x = a or b and not c
x = a < b <= c != d is not e not in f
x = a | b ^ c & d << e + f * -g ** h
x = (a + b) * c - d / e // f % g @ h
x = -a ** -b
x = a ** b ** c
x = p if q else r if s else t
x = f(1, k=2, *r, **kw)(3).y[0]
x = a[:, t], a[1:2:3], a[::2], a[...], a[i,], a[1:]
x = [], (), (1,), {}, {"k": [1, 2], **d}
x = 0x_FF + 1_000 + 1.5e-3 + .5 + 1. + True + None + ...
x = 'a' "b" r'\d' f"{y}" '''t
u''', b'\x00\n'
x = ~a >> 1
# CHECK:(module "{{.*}}expressions.py"
# CHECK-NEXT:  (assign @4:1
# CHECK-NEXT:    (name @4:1 x)
# CHECK-NEXT:    (binary @4:5 or
# CHECK-NEXT:      (name @4:5 a)
# CHECK-NEXT:      (binary @4:10 and
# CHECK-NEXT:        (name @4:10 b)
# CHECK-NEXT:        (unary @4:16 not
# CHECK-NEXT:          (name @4:20 c)))))
# CHECK-NEXT:  (assign @5:1
# CHECK-NEXT:    (name @5:1 x)
# CHECK-NEXT:    (compare @5:5 < <= != is not not in
# CHECK-NEXT:      (name @5:5 a)
# CHECK-NEXT:      (name @5:9 b)
# CHECK-NEXT:      (name @5:14 c)
# CHECK-NEXT:      (name @5:19 d)
# CHECK-NEXT:      (name @5:28 e)
# CHECK-NEXT:      (name @5:37 f)))
# CHECK-NEXT:  (assign @6:1
# CHECK-NEXT:    (name @6:1 x)
# CHECK-NEXT:    (binary @6:5 |
# CHECK-NEXT:      (name @6:5 a)
# CHECK-NEXT:      (binary @6:9 ^
# CHECK-NEXT:        (name @6:9 b)
# CHECK-NEXT:        (binary @6:13 &
# CHECK-NEXT:          (name @6:13 c)
# CHECK-NEXT:          (binary @6:17 <<
# CHECK-NEXT:            (name @6:17 d)
# CHECK-NEXT:            (binary @6:22 +
# CHECK-NEXT:              (name @6:22 e)
# CHECK-NEXT:              (binary @6:26 *
# CHECK-NEXT:                (name @6:26 f)
# CHECK-NEXT:                (unary @6:30 -
# CHECK-NEXT:                  (binary @6:31 **
# CHECK-NEXT:                    (name @6:31 g)
# CHECK-NEXT:                    (name @6:36 h))))))))))
# CHECK-NEXT:  (assign @7:1
# CHECK-NEXT:    (name @7:1 x)
# CHECK-NEXT:    (binary @7:5 -
# CHECK-NEXT:      (binary @7:5 *
# CHECK-NEXT:        (binary @7:6 +
# CHECK-NEXT:          (name @7:6 a)
# CHECK-NEXT:          (name @7:10 b))
# CHECK-NEXT:        (name @7:15 c))
# CHECK-NEXT:      (binary @7:19 @
# CHECK-NEXT:        (binary @7:19 %
# CHECK-NEXT:          (binary @7:19 //
# CHECK-NEXT:            (binary @7:19 /
# CHECK-NEXT:              (name @7:19 d)
# CHECK-NEXT:              (name @7:23 e))
# CHECK-NEXT:            (name @7:28 f))
# CHECK-NEXT:          (name @7:32 g))
# CHECK-NEXT:        (name @7:36 h))))
# CHECK-NEXT:  (assign @8:1
# CHECK-NEXT:    (name @8:1 x)
# CHECK-NEXT:    (unary @8:5 -
# CHECK-NEXT:      (binary @8:6 **
# CHECK-NEXT:        (name @8:6 a)
# CHECK-NEXT:        (unary @8:11 -
# CHECK-NEXT:          (name @8:12 b)))))
# CHECK-NEXT:  (assign @9:1
# CHECK-NEXT:    (name @9:1 x)
# CHECK-NEXT:    (binary @9:5 **
# CHECK-NEXT:      (name @9:5 a)
# CHECK-NEXT:      (binary @9:10 **
# CHECK-NEXT:        (name @9:10 b)
# CHECK-NEXT:        (name @9:15 c))))
# CHECK-NEXT:  (assign @10:1
# CHECK-NEXT:    (name @10:1 x)
# CHECK-NEXT:    (if-expr @10:5
# CHECK-NEXT:      (name @10:10 q)
# CHECK-NEXT:      (name @10:5 p)
# CHECK-NEXT:      (if-expr @10:17
# CHECK-NEXT:        (name @10:22 s)
# CHECK-NEXT:        (name @10:17 r)
# CHECK-NEXT:        (name @10:29 t))))
# CHECK-NEXT:  (assign @11:1
# CHECK-NEXT:    (name @11:1 x)
# CHECK-NEXT:    (subscript @11:5
# CHECK-NEXT:      (attr @11:5 y
# CHECK-NEXT:        (call @11:5
# CHECK-NEXT:          (call @11:5
# CHECK-NEXT:            (name @11:5 f)
# CHECK-NEXT:            (int @11:7 1)
# CHECK-NEXT:            (kwarg @11:10 k
# CHECK-NEXT:              (int @11:12 2))
# CHECK-NEXT:            (star-arg @11:15
# CHECK-NEXT:              (name @11:16 r))
# CHECK-NEXT:            (dstar-arg @11:19
# CHECK-NEXT:              (name @11:21 kw)))
# CHECK-NEXT:          (int @11:25 3)))
# CHECK-NEXT:      (int @11:30 0)))
# CHECK-NEXT:  (assign @12:1
# CHECK-NEXT:    (name @12:1 x)
# CHECK-NEXT:    (tuple @12:5
# CHECK-NEXT:      (subscript @12:5
# CHECK-NEXT:        (name @12:5 a)
# CHECK-NEXT:        (tuple @12:7
# CHECK-NEXT:          (slice @12:7)
# CHECK-NEXT:          (name @12:10 t)))
# CHECK-NEXT:      (subscript @12:14
# CHECK-NEXT:        (name @12:14 a)
# CHECK-NEXT:        (slice @12:16
# CHECK-NEXT:          (lower
# CHECK-NEXT:            (int @12:16 1))
# CHECK-NEXT:          (upper
# CHECK-NEXT:            (int @12:18 2))
# CHECK-NEXT:          (step
# CHECK-NEXT:            (int @12:20 3))))
# CHECK-NEXT:      (subscript @12:24
# CHECK-NEXT:        (name @12:24 a)
# CHECK-NEXT:        (slice @12:26
# CHECK-NEXT:          (step
# CHECK-NEXT:            (int @12:28 2))))
# CHECK-NEXT:      (subscript @12:32
# CHECK-NEXT:        (name @12:32 a)
# CHECK-NEXT:        (ellipsis @12:34))
# CHECK-NEXT:      (subscript @12:40
# CHECK-NEXT:        (name @12:40 a)
# CHECK-NEXT:        (tuple @12:42
# CHECK-NEXT:          (name @12:42 i)))
# CHECK-NEXT:      (subscript @12:47
# CHECK-NEXT:        (name @12:47 a)
# CHECK-NEXT:        (slice @12:49
# CHECK-NEXT:          (lower
# CHECK-NEXT:            (int @12:49 1))))))
# CHECK-NEXT:  (assign @13:1
# CHECK-NEXT:    (name @13:1 x)
# CHECK-NEXT:    (tuple @13:5
# CHECK-NEXT:      (list @13:5)
# CHECK-NEXT:      (tuple @13:9)
# CHECK-NEXT:      (tuple @13:13
# CHECK-NEXT:        (int @13:14 1))
# CHECK-NEXT:      (dict @13:19)
# CHECK-NEXT:      (dict @13:23
# CHECK-NEXT:        (item
# CHECK-NEXT:          (str @13:24 "k")
# CHECK-NEXT:          (list @13:29
# CHECK-NEXT:            (int @13:30 1)
# CHECK-NEXT:            (int @13:33 2)))
# CHECK-NEXT:        (unpack
# CHECK-NEXT:          (name @13:39 d)))))
# CHECK-NEXT:  (assign @14:1
# CHECK-NEXT:    (name @14:1 x)
# CHECK-NEXT:    (binary @14:5 +
# CHECK-NEXT:      (binary @14:5 +
# CHECK-NEXT:        (binary @14:5 +
# CHECK-NEXT:          (binary @14:5 +
# CHECK-NEXT:            (binary @14:5 +
# CHECK-NEXT:              (binary @14:5 +
# CHECK-NEXT:                (binary @14:5 +
# CHECK-NEXT:                  (int @14:5 255)
# CHECK-NEXT:                  (int @14:13 1000))
# CHECK-NEXT:                (float @14:21 0.0015))
# CHECK-NEXT:              (float @14:30 0.5))
# CHECK-NEXT:            (float @14:35 1.0))
# CHECK-NEXT:          (bool @14:40 True))
# CHECK-NEXT:        (none @14:47))
# CHECK-NEXT:      (ellipsis @14:54)))
# CHECK-NEXT:  (assign @15:1
# CHECK-NEXT:    (name @15:1 x)
# CHECK-NEXT:    (tuple @15:5
# CHECK-NEXT:      (fstr @15:5 "ab\\d{y}t\nu")
# CHECK-NEXT:      (bytes @16:7 "\x00\n")))
# CHECK-NEXT:  (assign @17:1
# CHECK-NEXT:    (name @17:1 x)
# CHECK-NEXT:    (binary @17:5 >>
# CHECK-NEXT:      (unary @17:5 ~
# CHECK-NEXT:        (name @17:6 a))
# CHECK-NEXT:      (int @17:11 1))))
