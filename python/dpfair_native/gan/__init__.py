"""Fair generative models (thesis ch. 6–7): FairGAN, FairGAN⁺ and CFGAN, on PyTorch (optional extra).

``import dpfair_native.gan`` works without torch; fitting needs it: ``pip install "dpfair_native[gan]"``.
The causal-effect estimators in ``dpfair_native.gan.effects`` are NumPy only.
"""

from .cfgan import CFGAN
from .fairgan import FairGAN, FairGANPlus

__all__ = ["FairGAN", "FairGANPlus", "CFGAN"]
