// A small chat on the LangGraph SDK's useStream that sends what Agent Chat UI sends (docs/chat.md, and the request
// bodies captured from it in tests/fixtures/chat): the same useStream options, the same human message with its
// file blocks, the same submit options. Answers render their Markdown links as links, as Agent Chat UI's do.
import { useStream } from "@langchain/langgraph-sdk/react";
import { useEffect, useState } from "react";
import { createRoot } from "react-dom/client";

const params = new URLSearchParams(location.search);
const apiUrl = params.get("api");
const apiKey = params.get("key") || undefined;
const IMAGES = ["image/jpeg", "image/png", "image/gif", "image/webp"];

// What the page saw of the newest AI message, render by render: the browser test reads it to see the answer stream.
window.paorFrames = [];

function base64Of(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onloadend = () => resolve(String(reader.result).split(",")[1]);
    reader.onerror = reject;
    reader.readAsDataURL(file);
  });
}

// Agent Chat UI's upload: a PDF names itself in metadata.filename, an image in metadata.name; nothing else is taken.
async function blockOf(file) {
  if (!IMAGES.includes(file.type) && file.type !== "application/pdf") {
    throw new Error(`Unsupported file type: ${file.type}`);
  }
  const data = await base64Of(file);
  if (IMAGES.includes(file.type)) return { type: "image", mimeType: file.type, data, metadata: { name: file.name } };
  return { type: "file", mimeType: "application/pdf", data, metadata: { filename: file.name } };
}

// An AI message whose tool calls have no tool message after it gets one, as Agent Chat UI adds before a new message.
function missingToolMessages(messages) {
  return messages.flatMap((message, index) => {
    if (message.type !== "ai" || !message.tool_calls?.length || messages[index + 1]?.type === "tool") return [];
    return message.tool_calls.map((call) => ({
      type: "tool",
      tool_call_id: call.id ?? "",
      id: `do-not-render-${crypto.randomUUID()}`,
      name: call.name,
      content: "Successfully handled tool call.",
    }));
  });
}

// A failed request's message, as Agent Chat UI's error toast shows it ("HTTP 401: {...}"), with the server's JSON
// `detail` drawn out of it: a refusal of paor's gate or limits is readable only if its CORS headers let the page in.
function errorOf(error) {
  const message = String(error?.message ?? error);
  try {
    const detail = JSON.parse(error?.text ?? "").detail;
    return typeof detail === "string" ? `${detail} (HTTP ${error.status})` : message;
  } catch {
    return message;
  }
}

function textOf(message) {
  if (typeof message.content === "string") return message.content;
  return message.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n");
}

// Markdown links become links; everything else stays text.
function Rich({ text }) {
  const parts = text.split(/(\[[^\]]+\]\([^)\s]+\))/g);
  return parts.map((part, i) => {
    const link = part.match(/^\[([^\]]+)\]\(([^)\s]+)\)$/);
    return link ? <a key={i} href={link[2]}>{link[1]}</a> : <span key={i}>{part}</span>;
  });
}

function Message({ message }) {
  const calls = (message.tool_calls || []).map((call) => `${call.name} ${JSON.stringify(call.args)}`);
  return (
    <div className={`message ${message.type}`} data-type={message.type} data-id={message.id}>
      <b>{message.type === "human" ? "You" : message.type === "tool" ? "Result" : "paor"}</b>
      {calls.map((call) => <pre key={call} className="tool-call">{call}</pre>)}
      <pre><Rich text={textOf(message)} /></pre>
    </div>
  );
}

function Chat() {
  const [threadId, setThreadId] = useState(null);
  const [input, setInput] = useState("");
  const [blocks, setBlocks] = useState([]);
  const [uploadError, setUploadError] = useState(null);
  const stream = useStream({
    apiUrl,
    apiKey,
    assistantId: "paor",
    messagesKey: "messages",
    threadId,
    fetchStateHistory: true,
    onCustomEvent: () => {},
    onThreadId: setThreadId,
  });
  useEffect(() => {
    const last = [...stream.messages].reverse().find((m) => m.type === "ai" && !m.tool_calls?.length);
    const text = last ? textOf(last) : "";
    if (text && window.paorFrames.at(-1) !== text) window.paorFrames.push(text);
  }, [stream.messages]);

  const attach = async (event) => {
    try {
      const added = await Promise.all([...event.target.files].map(blockOf));
      setBlocks((current) => [...current, ...added]);
      setUploadError(null);
    } catch (error) {
      setUploadError(error.message);
    }
    event.target.value = "";
  };
  const send = (event) => {
    event.preventDefault();
    const message = {
      id: crypto.randomUUID(),
      type: "human",
      content: [...(input.trim() ? [{ type: "text", text: input }] : []), ...blocks],
    };
    const toolMessages = missingToolMessages(stream.messages);
    stream.submit(
      { messages: [...toolMessages, message], context: undefined },
      {
        streamMode: ["values"],
        streamSubgraphs: true,
        streamResumable: true,
        optimisticValues: (prev) => ({ ...prev, context: undefined, messages: [...(prev.messages ?? []), ...toolMessages, message] }),
      },
    );
    setInput("");
    setBlocks([]);
  };
  return (
    <main>
      <h1>paor</h1>
      <div id="messages">{stream.messages.map((m, i) => <Message key={m.id ?? i} message={m} />)}</div>
      {stream.isLoading && <p id="working">working…</p>}
      {stream.error && <p id="error">{errorOf(stream.error)}</p>}
      {uploadError && <p id="upload-error">{uploadError}</p>}
      <form onSubmit={send}>
        <input id="prompt" value={input} onChange={(e) => setInput(e.target.value)} placeholder="Type your message..." />
        <input id="file-input" type="file" multiple accept={[...IMAGES, "application/pdf"].join(",")} onChange={attach} />
        <span id="attached">{blocks.map((b) => b.metadata.filename ?? b.metadata.name).join(", ")}</span>
        <button type="submit" disabled={stream.isLoading || (!input.trim() && !blocks.length)}>Send</button>
      </form>
    </main>
  );
}

createRoot(document.getElementById("root")).render(<Chat />);
