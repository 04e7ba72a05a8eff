"""The interactive 3D viewer: a self-contained HTML page of a run (``flexmbd view``)."""
from .page import page_data, render, view, write_html

__all__ = ["page_data", "render", "view", "write_html"]
