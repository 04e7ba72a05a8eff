"""Verification of flexmbd against analytic and published reference results.

Use :func:`case` and :func:`compare` to register comparisons, and
:func:`run_cases` (or ``flexmbd verify``) to run them.
"""

from flexmbd.verify.registry import (
    CASES,
    CaseInfo,
    Comparison,
    UnknownCaseError,
    case,
    compare,
    registered_cases,
    run_cases,
    selected_cases,
)

__all__ = [
    "CASES",
    "CaseInfo",
    "Comparison",
    "UnknownCaseError",
    "case",
    "compare",
    "registered_cases",
    "run_cases",
    "selected_cases",
]
