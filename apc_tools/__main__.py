from apc_tools.cli import main

main()
