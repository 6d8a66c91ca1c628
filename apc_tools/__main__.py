from apc_tools.start import main

main()
