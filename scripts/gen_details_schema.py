"""Write docs/observation-details.schema.json from the engines (arena.games.details_schema).

    python scripts/gen_details_schema.py           # write the file
    python scripts/gen_details_schema.py --check   # exit 1 if the committed file is stale
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "docs" / "observation-details.schema.json"


def render() -> str:
    from arena.games.details_schema import generate

    return json.dumps(generate(), indent=2, sort_keys=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the committed file is current")
    args = parser.parse_args()
    text = render()
    if args.check:
        if not OUTPUT.exists() or OUTPUT.read_text() != text:
            print(f"stale {OUTPUT.relative_to(ROOT)}; run python scripts/gen_details_schema.py", file=sys.stderr)
            return 1
        print(f"{OUTPUT.relative_to(ROOT)} is current")
        return 0
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
