"""numpy against the simulator's dumps of helion-single.py's roundings
(floor/ceil/round with ties to even/trunc, sign, clamps) and variances
(var/std/var_mean: unbiased, correction, keepdim), and concatenations
(torch.cat of tiles)."""
import sys

import numpy as np

kernel, d = sys.argv[1], sys.argv[2]
x = np.load(d + "/r0.c0.x.npy")
out = np.load(d + "/r0.c0.out.out.npy")
if kernel == "concatenations":
    n = x.shape[1]
    a, b = x[:, :n // 2], x[:, n // 2:]
    want = np.concatenate([-b, a, x, x * 2, x + 1, x, x], axis=1)
    bad = [] if np.array_equal(out, want) else ["cat"]
elif kernel == "roundings":
    x = np.floor(x * 8) * 0.5
    assert np.any(x - np.floor(x) == 0.5), "no halves to round"
    want = [np.floor(x), np.ceil(x), np.round(x), np.trunc(x), np.sign(x),
            np.maximum(x, 0.25), np.minimum(x, -0.25), np.floor(x) + 0.5]
    bad = [k for k, w in enumerate(want) if not np.array_equal(out[k], w)]
else:
    x = x.astype(np.float64)
    want = [x.var(-1, ddof=1), x.std(-1, ddof=1), x.var(-1, ddof=0),
            x.var(-1, ddof=0), x.var(-1, ddof=1), x.mean(-1)]
    bad = [k for k, w in enumerate(want)
           if not np.allclose(out[:, k], w, rtol=1e-5, atol=1e-6)]
print(f"{kernel}:", "ok" if not bad else f"parts {bad} differ")
