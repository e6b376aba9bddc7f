"""tagdex: tags, slugs and terminal listings for a plain-text notes collection."""

from tagdex.index import TagIndex
from tagdex.listing import Note, format_listing
from tagdex.text import display_width, slugify, tag_key, truncate

__all__ = ["Note", "TagIndex", "display_width", "format_listing", "slugify", "tag_key", "truncate"]
