# pytester: the in-process pytest runner used to test the simcore.golden plugin.
pytest_plugins = ["pytester"]
