"""Online aggregation of expert predictions (API contract: ``kernelstream.aggregation``).

Usable on any matrix of expert predictions, like R's ``opera::mixture``:
:class:`VAWMeta`, :class:`EWA`, :class:`AggregatingAlgorithm`, :class:`BOA`,
:class:`MLPoly`, :class:`MLProd`. Each has ``predict(z)``, ``update(z, y)``,
``weights`` and ``progressive_predict(Z, y)``.
"""

from .base import Aggregator
from .rules import BOA, EWA, AggregatingAlgorithm, MLPoly, MLProd, VAWMeta

__all__ = ["Aggregator", "VAWMeta", "EWA", "AggregatingAlgorithm", "BOA", "MLPoly", "MLProd"]
