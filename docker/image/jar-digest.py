#!/usr/bin/python3
"""Prints a digest of a jar's content (entry names and CRC-32s, not its timestamps): the shaded jar is rewritten on
every `package`, so its bytes change when its content does not. build-image.sh records it with the image archive;
the lab tests rebuild the image only when it differs."""
import hashlib
import sys
import zipfile

with zipfile.ZipFile(sys.argv[1]) as z:
    lines = "".join(f"{i.filename} {i.CRC}\n" for i in sorted(z.infolist(), key=lambda i: i.filename))
print(hashlib.sha256(lines.encode()).hexdigest())
