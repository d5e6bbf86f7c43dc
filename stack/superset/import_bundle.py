"""Import ioscale's Superset bundle from a file: `python import_bundle.py BUNDLE.zip USER` (compose's superset-init).

The bundle's metadata type is "assets" (superset/metadata.yaml; `ioscale stack up` posts it to /api/v1/assets/import/),
which `superset import-dashboards` refuses ("metadata.yaml: {'type': ['Must be equal to Dashboard.']}"): this runs
the command behind that endpoint, ImportAssetsCommand, which overwrites by UUID. The bundle carries the ClickHouse
reader's password in its database URI, so no passwords are passed.
"""

import sys
from zipfile import ZipFile

from flask import g
from superset.app import create_app


def main(path: str, username: str) -> int:
    app = create_app()
    with app.app_context():
        from superset import db, security_manager
        from superset.commands.importers.v1.assets import ImportAssetsCommand
        from superset.commands.importers.v1.utils import get_contents_from_bundle
        from superset.models.dashboard import Dashboard

        g.user = security_manager.find_user(username=username)
        if g.user is None:
            print(f"no Superset user {username!r}: create it first (superset fab create-admin)", file=sys.stderr)
            return 1
        with ZipFile(path) as bundle:
            contents = get_contents_from_bundle(bundle)
        ImportAssetsCommand(contents).run()
        slugs = sorted(s for (s,) in db.session.query(Dashboard.slug).all() if s)
        print(f"imported {path}: {len(slugs)} dashboards ({', '.join(slugs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
