"""provision.launcher: the same components, in the same order, as the stack's launcher, each one provisioned."""

from __future__ import annotations

from ioscale.provision import launcher as provisioned
from ioscale.stack import launcher as stack_launcher
from ioscale.stack.component import Component


def test_the_same_components_in_the_same_order():
    assert list(provisioned.COMPONENTS) == list(stack_launcher.COMPONENTS)


def test_each_provisioned_component_extends_the_stack_one_with_configure():
    for name in stack_launcher.COMPONENTS:
        base = stack_launcher.component_class(name)
        cls = stack_launcher.component_class(name, provisioned.COMPONENTS)
        assert issubclass(cls, base) and cls is not base, name
        assert cls.configure is not Component.configure and base.configure is Component.configure, name


def test_the_provisioned_launcher_uses_them(tmp_path):
    from ioscale.stack.progress import SilentProgress
    from ioscale.stack.settings import StackSettings

    settings = StackSettings.from_env({"IOSCALE_REPO": str(tmp_path), "IOSCALE_HOME": str(tmp_path / "home")})
    assert provisioned.Launcher(settings, SilentProgress()).components == provisioned.COMPONENTS
