"""Read `.env` files into dictionaries and environments."""

from envfile.errors import ParseError
from envfile.loader import dotenv_values, load
from envfile.parser import parse

__all__ = ["ParseError", "dotenv_values", "load", "parse"]
__version__ = "0.4.1"
