# Robot programs run by `python -m robotpy test` in a subprocess (tests/test_robotpy_programs.py); their own
# tests need robotpy's fixtures, so the main suite does not collect them.
collect_ignore_glob = ["*/tests/*"]
