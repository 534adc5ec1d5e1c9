// A polymcp Client: starts the MCP server whose command follows "--",
// prints what it offers, calls its echo tool and, if it has one, its
// test_sampling tool, whose question this client answers itself.
//
//   node client.mjs -- python3 -m polymcp.everything
import { Client } from "polymcp";

const argv = process.argv.slice(2);
const at = argv.indexOf("--");
if (at < 0 || at === argv.length - 1) {
  console.error("usage: client.mjs -- COMMAND [ARGS...]");
  process.exit(2);
}
const [command, ...args] = argv.slice(at + 1);

const client = new Client({ name: "polymcp-node-example", version: "1.0.0" }, {
  // The client's model: a canned reply to the server's sampling/createMessage.
  onSampling: async () => ({ role: "assistant", content: { type: "text", text: "a reply from Node" }, model: "example" }),
});
await client.connect({ command, args });
try {
  console.log(`connected to ${client.getServerVersion().name} (${client.protocolVersion})`);
  const { tools } = await client.listTools();
  console.log(`${tools.length} tools`);
  const echo = await client.callTool({ name: "echo", arguments: { text: "hello from Node" } });
  console.log(`echo: ${echo.content[0].text}`);
  if (tools.some((tool) => tool.name === "test_sampling")) {
    const sampled = await client.callTool({ name: "test_sampling", arguments: { prompt: "hi" } });
    console.log(`sampling: ${sampled.content[0].text}`);
  }
} finally {
  await client.close();
}
