"""The kernel bridge: the MCP server's tools run inside the kernel the user shares with the agent.

Two processes, two halves of this package::

    MCP server process (biopb-kernel-docs mcp)        kernel process (owned, or the user's)
    ------------------------------------------        -------------------------------------
    mcp_server: tools, handshake, watcher              kernel_side.dispatch(frame) -> frame
      client.KernelDocsClient                            operations.run(docs, name, arguments)
        1. kernel_info on control   ----------------->   (answered while a cell runs)
        2. one silent execute on a subshell --------->   kernel_side.open_channel(): starts
        3. signed frames over ZeroMQ  <-------------->   channel.serve(), a thread of its own
           (channel.Channel)
        fallback: a silent execute per call  -------->   kernel_side.handle(frame)

``wire`` is the frame format both halves speak (with its protocol version), ``inprocess`` the
same calls served without a kernel, ``messages`` what the bridge says when the kernel, not the
store, is the problem. Only ``client``, ``channel`` and ``inprocess`` run in the MCP server;
``kernel_side`` and the serving half of ``channel`` run in the kernel.
"""
