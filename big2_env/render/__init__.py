"""Rendering for people: the table as text (``render_mode="ansi"``/``"human"``) and as a picture (``"rgb_array"``).
May import: big2_env.engine only.

Modules: :mod:`~big2_env.render.text` (:func:`render_table`) and :mod:`~big2_env.render.picture`
(:func:`render_rgb`, the cards drawn with numpy alone).
"""

from .picture import render_rgb
from .text import render_table

__all__ = ["render_rgb", "render_table"]
