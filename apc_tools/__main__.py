from apc_tools.entry import main

main()
