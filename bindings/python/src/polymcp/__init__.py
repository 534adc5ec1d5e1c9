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
from ._context import Context, LogLevel
from ._errors import InputRequiredUnsupported, McpError, NativeError, ToolError
from ._handlers import TaskStart, TaskSupport
from ._native import configure, load_library
from ._schema import schema_of
from ._server import Server

__version__ = "0.1.0"

__all__ = [
    "Audio",
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
    "PromptResult",
    "ResourceContents",
    "ResourceLink",
    "Server",
    "TaskStart",
    "TaskSupport",
    "Text",
    "ToolError",
    "ToolResult",
    "configure",
    "load_library",
    "schema_of",
]
