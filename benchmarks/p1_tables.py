"""Print P1's slider-crank iteration tables (studies A and B) and the static result as
Markdown: ``python -m benchmarks.p1_tables``."""
from __future__ import annotations

from flexmbd.examples.slider_crank import STUDY_A, STUDY_B, format_study, jacobian_study


def main():
    print("Study A: c = 0, k swept; without = Newton matrix without the SDA's ∂Q/∂q (M1+M3)\n")
    print(format_study(jacobian_study(STUDY_A, without="M1+M3")))
    print("\nStudy B: k = 2e4 N/m, c swept; without = Newton matrix without the SDA's ∂Q/∂q' (M1+M2)\n")
    print(format_study(jacobian_study(STUDY_B, without="M1+M2")))


if __name__ == "__main__":
    main()
