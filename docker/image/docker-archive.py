#!/usr/bin/python3
"""Packs a root file system directory into a one-layer docker-archive (what `docker load` and `podman load` read),
with no daemon and no registry: manifest.json, the image config (entrypoint, env, labels, health check) and the
layer tar made by GNU tar (numeric owners, file capabilities kept).

usage: docker-archive.py ROOTFS OUT.tar --tag NAME:TAG --config CONFIG.json
CONFIG.json holds the image config's "config" object (Entrypoint, Cmd, Env, Labels, Healthcheck, ...).
"""
import argparse
import datetime
import hashlib
import io
import json
import os
import subprocess
import tarfile
import tempfile


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("rootfs")
    p.add_argument("out")
    p.add_argument("--tag", required=True)
    p.add_argument("--config", required=True)
    a = p.parse_args()
    with open(a.config) as f:
        container_config = json.load(f)
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(a.out))) as tmp:
        layer = os.path.join(tmp, "layer.tar")
        # /dev's nodes are the runtime's business (a 0/0 character device would even read as an overlay whiteout)
        subprocess.run(["tar", "--numeric-owner", "--xattrs", "--xattrs-include=security.capability",
                        "--sort=name", "--exclude=./dev/*", "--exclude=./proc/*", "--exclude=./sys/*",
                        "-C", a.rootfs, "-cf", layer, "."], check=True)
        diff_id = sha256_file(layer)
        created = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        image_config = {
            "architecture": "amd64",
            "os": "linux",
            "created": created,
            "config": container_config,
            "rootfs": {"type": "layers", "diff_ids": ["sha256:" + diff_id]},
            "history": [{"created": created, "created_by": "docker/build-image.sh (mmdebstrap + jlink)"}],
        }
        config_bytes = json.dumps(image_config, sort_keys=True).encode()
        config_id = hashlib.sha256(config_bytes).hexdigest()
        manifest = [{"Config": config_id + ".json", "RepoTags": [a.tag], "Layers": [diff_id + "/layer.tar"]}]
        tmp_out = a.out + ".part"
        with tarfile.open(tmp_out, "w") as t:
            def add_bytes(name, data):
                info = tarfile.TarInfo(name)
                info.size = len(data)
                info.mtime = 0
                t.addfile(info, io.BytesIO(data))
            add_bytes(config_id + ".json", config_bytes)
            dir_info = tarfile.TarInfo(diff_id)
            dir_info.type = tarfile.DIRTYPE
            dir_info.mode = 0o755
            t.addfile(dir_info)
            t.add(layer, arcname=diff_id + "/layer.tar")
            add_bytes("manifest.json", json.dumps(manifest).encode())
        os.replace(tmp_out, a.out)
    print(f"{a.out}: {a.tag}, layer sha256:{diff_id[:12]}, {os.path.getsize(a.out) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
