

class ProbeError(AssertionError):
    """A value whose shape, dtype or range is not what the checker inferred
    (raised only by a build with probes, docs/shapescript/soundness.md)."""


def _outside(low, high, low_open, high_open, smallest, largest):
    if low is not None and (smallest < low or (low_open and smallest == low)):
        return True
    return high is not None and (largest > high or (high_open and largest == high))


def probe(value, shape, dtype, range_, where):
    """Checks `value` against the checker's type and returns it: `shape` a
    tuple of sizes (`None` for one not known here), `dtype` a torch dtype or
    "int"/"float"/"bool" for a Python number, `range_` `(low, high,
    low_open, high_open)` with `None` for an infinite end. NaN is outside
    every range."""
    if isinstance(dtype, str):
        kinds = {"int": (int,), "float": (int, float), "bool": (bool,)}[dtype]
        if isinstance(value, torch.Tensor) or not isinstance(value, kinds):
            raise ProbeError(f"dtype: {type(value).__name__} {value!r} is not a Python {dtype} ({where})")
        if range_ is not None and (value != value or _outside(*range_, value, value)):
            raise ProbeError(f"range: {value!r} is outside {range_} ({where})")
        return value
    if not isinstance(value, torch.Tensor):
        raise ProbeError(f"dtype: {type(value).__name__} is not a tensor ({where})")
    if shape is not None:
        got = tuple(value.shape)
        if len(got) != len(shape) or any(s is not None and s != g for s, g in zip(shape, got)):
            raise ProbeError(f"shape: {got} is not {shape} ({where})")
    if value.dtype != dtype:
        raise ProbeError(f"dtype: {value.dtype} is not {dtype} ({where})")
    if range_ is not None and value.numel() > 0:
        v = value.detach().double()
        if bool(torch.isnan(v).any()):
            raise ProbeError(f"range: NaN is outside {range_} ({where})")
        smallest, largest = v.min().item(), v.max().item()
        if _outside(*range_, smallest, largest):
            raise ProbeError(f"range: values in [{smallest!r}, {largest!r}] are outside {range_} ({where})")
    return value
