class ParseError(ValueError):
    """A line of a .env file could not be understood.

    `lineno` is 1-based so that it matches what an editor shows.
    """

    def __init__(self, message: str, lineno: int):
        super().__init__(f"line {lineno}: {message}")
        self.message = message
        self.lineno = lineno
