"""Bot tokens as the store keeps them: salted scrypt hashes in a self-describing text form."""

from __future__ import annotations

import hashlib
import hmac
import os

_SCRYPT = {"n": 2**14, "r": 8, "p": 1}


def hash_token(token: str) -> str:
    """A salted scrypt hash in a self-describing text form."""
    salt = os.urandom(16)
    digest = hashlib.scrypt(token.encode(), salt=salt, dklen=32, **_SCRYPT)
    return f"scrypt${_SCRYPT['n']}${_SCRYPT['r']}${_SCRYPT['p']}${salt.hex()}${digest.hex()}"


def verify_token(token: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        candidate = hashlib.scrypt(
            token.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p), dklen=len(digest) // 2
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(candidate.hex(), digest)
