"""dpfair_native: classifiers that are differentially private and fair at once, with a C++ core."""

__version__ = "0.1.0"
