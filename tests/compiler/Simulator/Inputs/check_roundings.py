"""numpy's floor/ceil/round (halves to even, as torch.round)/trunc, sign
and clamps against the simulator's dump of helion-single.py's roundings."""
import sys

import numpy as np

d = sys.argv[1]
x = np.floor(np.load(d + "/r0.c0.x.npy") * 8) * 0.5
out = np.load(d + "/r0.c0.out.out.npy")
assert np.any(x - np.floor(x) == 0.5), "no halves to round"
want = [np.floor(x), np.ceil(x), np.round(x), np.trunc(x), np.sign(x),
        np.maximum(x, 0.25), np.minimum(x, -0.25), np.floor(x) + 0.5]
bad = [k for k, w in enumerate(want) if not np.array_equal(out[k], w)]
print("roundings:", "ok" if not bad else f"rows {bad} differ")
