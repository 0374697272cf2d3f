"""Rendering the jinja2 shells of ``looplift.shells``: templates fill a typed context only."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

__all__ = ["render"]


@lru_cache(maxsize=1)
def _env() -> Any:
    from jinja2 import Environment, PackageLoader, StrictUndefined

    return Environment(
        loader=PackageLoader("looplift.shells", ""),
        undefined=StrictUndefined,
        keep_trailing_newline=False,
        autoescape=False,
    )


def render(template: str, **context: Any) -> str:
    """Render ``shells/<template>`` with ``context`` (no trailing newline)."""
    return _env().get_template(template).render(**context).rstrip("\n")
