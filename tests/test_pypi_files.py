"""The sdist from the index's file list: the right file, its hash checked, None where pip must take over."""

import hashlib
import http.server
import json
import threading

import pytest

from gatebench.suite import pypi_files

SDIST = b"not really a tarball, but bytes with a hash"


def _index(listing: dict):
    """An index on 127.0.0.1 whose file list is `listing["files"]` at the time of each request."""
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path == "/simple/python-slugify/":
                body, kind = json.dumps({"files": listing["files"]}).encode(), pypi_files.ACCEPT
            elif self.path == "/files/python_slugify-9.1.0.tar.gz":
                body, kind = SDIST, "application/octet-stream"
            else:
                self.send_response(404)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def _entry(base: str, name: str, sha: str, yanked=False) -> dict:
    return {"filename": name, "url": f"{base}/files/{name}", "hashes": {"sha256": sha}, "yanked": yanked}


def test_the_sdist_of_the_version_is_found_by_its_normalized_name_and_not_a_wheel_or_a_neighbour():
    files = [{"filename": "python_slugify-9.1.0-py2.py3-none-any.whl"}, {"filename": "python_slugify-9.1.01.tar.gz"},
             {"filename": "python-slugify-9.1.1.tar.gz"}, {"filename": "python_slugify-9.1.0.tar.gz"}]
    assert pypi_files.sdist_of(files, "Python.Slugify", "9.1.0")["filename"] == "python_slugify-9.1.0.tar.gz"
    assert pypi_files.sdist_of(files, "python-slugify", "9.2.0") is None
    assert pypi_files.sdist_of([{"filename": "python_slugify-9.1.0.tar.gz", "yanked": "broken"}],
                               "python-slugify", "9.1.0") is None


def test_a_listed_sdist_is_fetched_with_its_hash_checked_and_a_wrong_hash_leaves_nothing(tmp_path):
    listing: dict = {"files": []}
    server, base = _index(listing)
    try:
        listing["files"] = [_entry(base, "python_slugify-9.1.0.tar.gz", hashlib.sha256(SDIST).hexdigest())]
        got = pypi_files.fetch("python-slugify", "9.1.0", tmp_path, index=f"{base}/simple")
        assert got == tmp_path / "python_slugify-9.1.0.tar.gz" and got.read_bytes() == SDIST
        got.unlink()
        listing["files"] = [_entry(base, "python_slugify-9.1.0.tar.gz", "0" * 64)]
        with pytest.raises(ValueError, match="the index lists 0000"):
            pypi_files.fetch("python-slugify", "9.1.0", tmp_path, index=f"{base}/simple")
        assert list(tmp_path.iterdir()) == []
        # not listed, or no index at that address: None, and the caller downloads with pip
        assert pypi_files.fetch("python-slugify", "9.9.9", tmp_path, index=f"{base}/simple") is None
        assert pypi_files.fetch("python-slugify", "9.1.0", tmp_path, index=f"{base}/nowhere") is None
    finally:
        server.shutdown()
