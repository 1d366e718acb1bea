"""TurboQuant vector quantization in NumPy: random rotation (``rotation``), Lloyd-Max
codebooks for the rotated coordinates (``codebook``), bit packing (``bits``) and the
quantizer that ties them together (``turboquant.TurboQuantizer``)."""
