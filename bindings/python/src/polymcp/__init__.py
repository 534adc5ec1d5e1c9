"""polymcp: MCP servers in Python with the protocol, transports and
concurrency done in Go.

    import polymcp

    server = polymcp.Server("demo", version="1.0.0")

    @server.tool()
    def add(a: int, b: int) -> int:
        \"\"\"Adds two numbers.\"\"\"
        return a + b

    server.run()  # stdio; run(transport="http", port=8000) for HTTP
"""

from ._content import (
    Audio,
    Completion,
    Content,
    EmbeddedResource,
    Image,
    Message,
    PromptResult,
    ResourceContents,
    ResourceLink,
    Text,
    ToolResult,
)
from ._client import Client
from ._client_oauth import OAuth
from ._client_results import CallToolResult
from ._context import Context, LogLevel
from ._errors import (ClientClosed, ClientError, InputRequiredUnsupported, McpError, NativeError,
                      OutputValidationError, RequestCancelled, RequestTimeout, ToolCallError,
                      ToolError, TransportError)
from ._handlers import TaskStart, TaskSupport
from ._native import configure, load_library
from ._schema import schema_of
from ._server import Server
from ._subscription import Subscription

__version__ = "0.1.0"

__all__ = [
    "Audio",
    "CallToolResult",
    "Client",
    "ClientClosed",
    "ClientError",
    "Completion",
    "Content",
    "Context",
    "EmbeddedResource",
    "Image",
    "InputRequiredUnsupported",
    "LogLevel",
    "McpError",
    "Message",
    "NativeError",
    "OAuth",
    "OutputValidationError",
    "PromptResult",
    "RequestCancelled",
    "RequestTimeout",
    "ResourceContents",
    "ResourceLink",
    "Server",
    "Subscription",
    "TaskStart",
    "TaskSupport",
    "Text",
    "ToolCallError",
    "ToolError",
    "ToolResult",
    "TransportError",
    "configure",
    "load_library",
    "schema_of",
]
