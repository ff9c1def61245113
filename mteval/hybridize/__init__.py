"""Syntactic reference hybridization (Wang, Zhao, Yang & Li 2009): new references made by
swapping the sub-segments that play the same syntactic role in two references of a segment.

* :mod:`.equivalents`: syntactic equivalent pairs by synchronous top-down traversal (Sec. 2);
* :mod:`.generate`: ``Equ(nt)`` with Cartesian products, de-duplication, a cap, and writing the
  extended references as files (Sec. 3);
* :mod:`.stats`: the paper's Table 5 (tree nodes, equivalent nodes) and length distributions.
"""

from mteval.hybridize.generate import HybridResult, SegmentHybrids, hybridize, write_extended_references

__all__ = ["HybridResult", "SegmentHybrids", "hybridize", "write_extended_references"]
