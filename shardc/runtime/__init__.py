"""Runtime: devices, compilation through jaxlib's XLA client, execution, arrays."""
