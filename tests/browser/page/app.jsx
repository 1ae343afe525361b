// The smallest chat on the LangGraph SDK's useStream, as Agent Chat UI uses it: messages in, values.messages out.
import { useStream } from "@langchain/langgraph-sdk/react";
import { useState } from "react";
import { createRoot } from "react-dom/client";

const apiUrl = new URLSearchParams(location.search).get("api");

function text(message) {
  if (typeof message.content === "string") return message.content;
  return message.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n");
}

function Message({ message }) {
  const calls = (message.tool_calls || []).map((call) => `${call.name} ${JSON.stringify(call.args)}`);
  return (
    <div className={`message ${message.type}`} data-type={message.type}>
      <b>{message.type === "human" ? "You" : message.type === "tool" ? "Result" : "paor"}</b>
      {calls.map((call) => <pre key={call} className="tool-call">{call}</pre>)}
      <pre>{text(message)}</pre>
    </div>
  );
}

function Chat() {
  const [threadId, setThreadId] = useState(null);
  const [input, setInput] = useState("");
  const stream = useStream({ apiUrl, assistantId: "paor", messagesKey: "messages", threadId, onThreadId: setThreadId });
  const send = (event) => {
    event.preventDefault();
    const message = { type: "human", content: [{ type: "text", text: input }] };
    stream.submit(
      { messages: [message] },
      { streamMode: ["values"], streamSubgraphs: true, streamResumable: true,
        optimisticValues: (prev) => ({ ...prev, messages: [...(prev.messages ?? []), message] }) },
    );
    setInput("");
  };
  return (
    <main>
      <h1>paor</h1>
      <div id="messages">{stream.messages.map((m, i) => <Message key={m.id ?? i} message={m} />)}</div>
      {stream.isLoading && <p id="working">working…</p>}
      {stream.error && <p id="error">{String(stream.error.message ?? stream.error)}</p>}
      <form onSubmit={send}>
        <input id="prompt" value={input} onChange={(e) => setInput(e.target.value)} placeholder="Type your message..." />
        <button type="submit" disabled={stream.isLoading || !input.trim()}>Send</button>
      </form>
    </main>
  );
}

createRoot(document.getElementById("root")).render(<Chat />);
