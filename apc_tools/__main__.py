from apc_tools.start import run

run()
