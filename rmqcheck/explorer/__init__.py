"""``rmqcheck explore``: the model in a browser, one action at a time.

A local web server (Starlette on uvicorn, bound to 127.0.0.1 unless ``--host`` says otherwise) and one
static page. Every answer is computed from a *path*: the action labels taken from the initial state, as
the page's address carries them (``/?path=SendMessage();MasterCrash()``), so a state's URL can be pasted
into a ticket and reopened. The modules:

- :mod:`.session`: one configuration's model walked along a path (the state grouped by actor, the enabled
  actions with their outcome, every property's value there and why);
- :mod:`.trace_files`: the traces of a ``check``/``faults``/``simulate`` JSON result or an ITF file;
- :mod:`.search`: "shortest path to a property", the normal check run in a background thread;
- :mod:`.server`: the HTTP endpoints and the page; :mod:`.command`: the ``explore`` command;
- :mod:`.limits`: what a request may carry (address length, header fields, one Host), and :mod:`.protocol`:
  uvicorn's HTTP/1.1 connection applying them while it reads, and answering a refusal the client can read.
"""
