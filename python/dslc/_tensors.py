"""Tensors as the package sees them: a TensorSpec for a compile without
data, the order a tensor's dimensions are stored in, and the tests for a
tensor, a tuple of every rank's copies and a symmetric-memory handle
(shared by Kernel's requests and _Instance's binding)."""

from . import _torch
from .errors import InvalidArgumentError

class TensorSpec:
    """Stands for a tensor in Kernel.compile(): dtype and shape, and the
    order its dimensions are stored in (torch's Tensor.dim_order(); None:
    row-major)."""

    def __init__(self, dtype, shape, dim_order=None):
        self.dtype_name = _torch.dtype_name(dtype)
        self.shape = tuple(int(s) for s in shape)
        self.dim_order = None
        if dim_order is not None:
            order = tuple(int(d) for d in dim_order)
            if sorted(order) != list(range(len(self.shape))):
                raise InvalidArgumentError(
                    f"TensorSpec: dim_order {order} is not a permutation of "
                    f"the {len(self.shape)} dimensions")
            if order != tuple(range(len(order))):
                self.dim_order = order


def dim_order(shape, strides):
    """The order a tensor's dimensions are stored in, outermost first
    (torch's Tensor.dim_order()), when its strides are a permutation of a
    row-major layout's: None for row-major itself (or no elements),
    False for any other layout (gaps, overlaps, a step). Dimensions of
    size 1, whose strides mean nothing, keep their place."""
    shape, strides = tuple(int(s) for s in shape), tuple(strides)
    if any(s == 0 for s in shape):
        return None
    # the others by decreasing stride, around the size-1 dimensions' places
    others = iter(sorted((d for d in range(len(shape)) if shape[d] != 1),
                         key=lambda d: -strides[d]))
    order = [d if shape[d] == 1 else next(others) for d in range(len(shape))]
    expected = 1
    for d in reversed(order):
        if shape[d] == 1:
            continue
        if strides[d] != expected:
            return False
        expected *= shape[d]
    order = tuple(order)
    return None if order == tuple(range(len(shape))) else order


def _layout(v):
    """(dim order or None, stored shape) of a tensor or TensorSpec; raises
    for a layout that is no permutation of a row-major one."""
    if isinstance(v, TensorSpec):
        order = v.dim_order
    elif v.is_contiguous():
        order = None
    else:
        order = dim_order(v.shape, v.stride())
        if order is False:
            return False, None
    shape = tuple(int(s) for s in v.shape)
    if order is None:
        return None, shape
    return order, tuple(shape[d] for d in order)


def _layout_text(order):
    return "x".join(map(str, order))


def _is_tensor(v):
    return hasattr(v, "data_ptr") and hasattr(v, "dtype") and \
        hasattr(v, "shape")


def _is_tensor_tuple(v):
    return isinstance(v, (tuple, list)) and len(v) > 0 and all(
        _is_tensor(t) or isinstance(t, TensorSpec) for t in v)


def _annotated_as(p, dtype, rank):
    """Whether parameter p's annotation already says this dtype and rank
    (then --signature need not: the family key stays the same whether the
    call passes the tensor or leaves it to the package). A table of
    addresses is one whether torch calls it int64 or uint64."""
    if p.kind != "tensor" or p.rank != rank:
        return False
    return p.dtype == dtype or {p.dtype, dtype} == {"int64", "uint64"}


def _is_symm_handle(v):
    return hasattr(v, "buffer_ptrs_dev") and hasattr(v, "signal_pad_ptrs_dev")


def _numel(shape):
    n = 1
    for s in shape:
        n *= int(s)
    return n
