#!/usr/bin/env python3
"""A picture's words come from the run it shows: for every image a page
links (![ALT](PATH.png)) whose PNG carries a Description text, which the
script that made it wrote from that run (scripts/timeline_picture.sh), the
alt text must end with that Description. A picture made by hand carries
none and is not checked.

  check_pictures.py ROOT [PAGE...]   (default pages: README.md and docs/**/*.md)
"""
import pathlib
import re
import struct
import sys

root = pathlib.Path(sys.argv[1])
pages = [pathlib.Path(p) for p in sys.argv[2:]] or \
    [root / "README.md"] + sorted((root / "docs").rglob("*.md"))


def png_texts(path):
    """The tEXt chunks of the PNG at PATH, as a dict."""
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return {}
    texts, at = {}, 8
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"tEXt":
            key, _, value = data[at + 8:at + 8 + length].partition(b"\0")
            texts[key.decode("latin-1")] = value.decode("latin-1")
        if kind == b"IEND":
            break
        at += 12 + length
    return texts


problems = checked = 0
for page in pages:
    for alt, target in re.findall(r"!\[([^\]]*)\]\(([^)]+\.png)\)", page.read_text()):
        picture = (page.parent / target).resolve()
        if not picture.exists():
            print(f"{page}: the picture {target} does not exist")
            problems += 1
            continue
        description = png_texts(picture).get("Description")
        if description is None:
            continue
        checked += 1
        if not alt.endswith(description):
            print(f"{page}: the alt text '{alt}' of {target} does not say what its run did: '{description}'")
            problems += 1
print(f"{checked} pictures made from a run checked, {problems} problems")
sys.exit(1 if problems else 0)
