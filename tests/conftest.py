"""Shared fixtures: where ../shared is, and skipping tests that need it."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DATA = ROOT / "data"

needs_shared = pytest.mark.skipif(not SHARED.exists(), reason="../shared (WMT data and oracles) is absent")
