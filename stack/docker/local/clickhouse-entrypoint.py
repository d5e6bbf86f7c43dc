"""Runs the local stack's ClickHouse (chdb-core's engine, ioscale.services.clickhouse_server) as a container.

The config and accounts are the local stack's (stack/clickhouse), rendered for a container: listening on every
interface, data in /var/lib/clickhouse, the accounts reachable from the compose network (the local users.xml
admits loopback only). This engine has no writable access storage (its LocalServer reads users.xml only, and
`CREATE USER` fails with ACCESS_STORAGE_FOR_INSERTION_NOT_FOUND), so every account is defined here, from
CLICKHOUSE_PASSWORD (the admin, as in the official image) and CLICKHOUSE_<ROLE>_PASSWORD; `ioscale admin init`
sees them in users.xml and leaves them alone.
"""

import os
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from ioscale.stack.clickhouse import ROLES, password_secret_name, render_config, render_users
from ioscale.stack.settings import CLICKHOUSE_USERS, StackSettings

REPO = Path(os.environ.get("IOSCALE_REPO", "/app"))
HOME = Path("/var/lib/clickhouse")
#: Built into the image by clickhouse.Dockerfile from stack/clickhouse/wait_for_space.c.
WAIT_FOR_SPACE = Path("/usr/local/lib/wait_for_space.so")


def users_xml(env: dict[str, str]) -> str:
    secrets = {password_secret_name(r): env.get(password_secret_name(r), "") for r in ROLES}
    secrets[password_secret_name("admin")] = env.get("CLICKHOUSE_PASSWORD") or secrets[password_secret_name("admin")]
    missing = [k for k, v in secrets.items() if not v]
    if missing:
        sys.exit(f"set {', '.join(missing)} (CLICKHOUSE_PASSWORD may stand for the admin's)")
    if env.get("CLICKHOUSE_USER", CLICKHOUSE_USERS["admin"]) != CLICKHOUSE_USERS["admin"]:
        sys.exit(f"CLICKHOUSE_USER: this image's admin account is {CLICKHOUSE_USERS['admin']}")
    root = ET.fromstring(render_users(secrets, (REPO / "stack/clickhouse/users.xml.tmpl").read_text()))
    for role in ROLES:
        networks = root.find(f"users/{CLICKHOUSE_USERS[role]}/networks")
        for ip in list(networks):
            networks.remove(ip)
        ET.SubElement(networks, "ip").text = "::/0"
    return ET.tostring(root, encoding="unicode")


def main() -> None:
    settings = StackSettings(home=HOME, repo=REPO, host="0.0.0.0")
    conf, data = HOME / "conf", HOME / "data"
    for d in (conf, data, settings.log_dir):
        d.mkdir(parents=True, exist_ok=True)
    users = conf / "users.xml"
    users.write_text(users_xml(dict(os.environ)))
    users.chmod(0o600)
    template = (REPO / "stack/clickhouse/config.xml.tmpl").read_text()
    (conf / "config.xml").write_text(render_config(settings, data, users, template))
    os.execvp(sys.executable, [sys.executable, "-m", "ioscale.services.clickhouse_server",
                               "--config", str(conf / "config.xml"), "--wait-for-space", str(WAIT_FOR_SPACE)])


if __name__ == "__main__":
    main()
