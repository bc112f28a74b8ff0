"""Keys for the secure sampling path: 32-byte ChaCha20 keys from the OS, or derived from a seed for research runs.

``SecureKeys(random_state).next()`` returns a fresh key per call:

- ``None``: ``secrets.token_bytes(32)`` (the OS CSPRNG) every call — the only setting with the cryptographic
  guarantee: nobody can regenerate the noise;
- an ``int`` seed: key_i = SHA-256("dpfair_native secure noise" ‖ seed ‖ i) — reproducible; **whoever knows the
  seed can regenerate the noise and subtract it, so the DP guarantee does not hold against them** (research runs);
- a ``numpy.random.Generator``: ``rng.bytes(32)`` (reproducible from the Generator's state; same caveat);
- ``bytes`` of length 32: a master key; key_i = SHA-256(tag ‖ master ‖ i) (secret iff the master key is).
"""

from __future__ import annotations

import hashlib
import numbers
import secrets
import threading

import numpy as np

_TAG = b"dpfair_native secure noise\x00"


class SecureKeys:
    """A stream of 32-byte keys for :func:`dpfair_native.kernels.discrete_gaussian_noise` and the secure DP-SGD loop."""

    def __init__(self, random_state=None):
        if random_state is None or isinstance(random_state, np.random.Generator):
            self._source = random_state
        elif isinstance(random_state, (bytes, bytearray)):
            if len(random_state) != 32:
                raise ValueError(f"a key given as random_state must be 32 bytes, got {len(random_state)}")
            self._source = bytes(random_state)
        elif isinstance(random_state, (numbers.Integral, np.integer)) and not isinstance(random_state,
                                                                                     (bool, np.bool_)):
            if random_state < 0:
                raise ValueError(f"random_state must be a non-negative int, got {random_state}")
            self._source = int(random_state).to_bytes((int(random_state).bit_length() + 8) // 8, "little")
            self._source = b"seed:" + self._source
        else:
            raise TypeError(
                "random_state must be None (OS entropy), an int, a numpy.random.Generator or a 32-byte key, got "
                f"{type(random_state).__name__}"
            )
        self._counter = 0
        self._lock = threading.Lock()  # two threads must never draw the same key (the same noise twice)

    @property
    def from_os(self) -> bool:
        """True when the keys come from the OS CSPRNG (random_state=None)."""
        return self._source is None

    def next(self) -> bytes:
        if self._source is None:
            return secrets.token_bytes(32)
        with self._lock:
            if isinstance(self._source, np.random.Generator):
                return self._source.bytes(32)
            i = self._counter
            self._counter += 1
        return hashlib.sha256(_TAG + self._source + b"|" + i.to_bytes(8, "little")).digest()
