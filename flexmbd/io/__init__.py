"""Files in and out of flexmbd: model files (:mod:`.model_file`), safe time-function
expressions (:mod:`.expressions`) and results on disk.

Kept import-free on purpose: ``import flexmbd.io`` must stay cheap (the command line
imports submodules only when a command needs them).
"""
