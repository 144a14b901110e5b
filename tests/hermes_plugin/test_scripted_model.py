"""The scripted model server speaks the OpenAI chat API well enough for the real openai client."""

from __future__ import annotations

import json

import httpx
from openai import OpenAI

from factledger.hermes_plugin.scripted_model import AUXILIARY_REPLY, EXHAUSTED_REPLY, ChatRequest, ModelReply, ToolCall

TOOLS = [{"type": "function", "function": {"name": "factledger_search", "parameters": {"type": "object"}}}]


def client(server) -> OpenAI:
    return OpenAI(base_url=server.base_url, api_key="sk-fake", max_retries=0)


def test_models_endpoint_lists_the_fake_model(model_server):
    models = client(model_server).models.list()
    assert [m.id for m in models.data] == ["fake-model"]
    assert httpx.get(model_server.base_url + "/nowhere").status_code == 404


def test_a_streamed_text_reply_arrives_in_pieces(model_server):
    model_server.push(ModelReply.say("You live in Lisbon now."))
    stream = client(model_server).chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": "where?"}], tools=TOOLS, stream=True
    )
    pieces = [c.choices[0].delta.content for c in stream if c.choices and c.choices[0].delta.content]
    assert len(pieces) > 1 and "".join(pieces) == "You live in Lisbon now."


def test_a_streamed_tool_call_carries_name_and_arguments(model_server):
    model_server.push(ModelReply.call("factledger_search", {"query": "city"}, ToolCall("factledger_history", "{bad json")))
    stream = client(model_server).chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": "x"}], tools=TOOLS, stream=True
    )
    calls: dict[int, dict] = {}
    finish = None
    for chunk in stream:
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        finish = choice.finish_reason or finish
        for delta in choice.delta.tool_calls or []:
            entry = calls.setdefault(delta.index, {"name": "", "arguments": ""})
            entry["name"] += delta.function.name or ""
            entry["arguments"] += delta.function.arguments or ""
    assert finish == "tool_calls"
    assert calls[0] == {"name": "factledger_search", "arguments": json.dumps({"query": "city"})}
    assert calls[1] == {"name": "factledger_history", "arguments": "{bad json"}


def test_plain_json_replies_and_callable_steps(model_server):
    model_server.push(lambda request: ModelReply.say(f"saw: {request.last_user_text()}"))
    reply = client(model_server).chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": "hello"}], tools=TOOLS
    )
    assert reply.choices[0].message.content == "saw: hello"
    reply = client(model_server).chat.completions.create(model="fake-model", messages=[{"role": "user", "content": "x"}], tools=TOOLS)
    assert reply.choices[0].message.content == EXHAUSTED_REPLY
    assert [r.last_user_text() for r in model_server.requests] == ["hello", "x"]


def test_requests_without_tools_do_not_consume_the_script(model_server):
    model_server.push(ModelReply.say("scripted"))
    reply = client(model_server).chat.completions.create(model="fake-model", messages=[{"role": "user", "content": "title?"}])
    assert reply.choices[0].message.content == AUXILIARY_REPLY
    assert model_server.remaining == 1 and len(model_server.auxiliary_requests) == 1


def test_chat_request_reads_the_memory_context_and_tool_results():
    request = ChatRequest(
        {
            "messages": [
                {"role": "system", "content": "sys"},
                {"role": "user", "content": "q\n\n<memory-context>\n[note]\n\n- user lives in Lisbon\n</memory-context>"},
                {"role": "assistant", "content": None, "tool_calls": [{"id": "c1"}]},
                {"role": "tool", "tool_call_id": "c1", "content": "{\"results\": []}"},
            ]
        }
    )
    assert request.memory_context() == "[note]\n\n- user lives in Lisbon"
    assert request.tool_results() == [{"tool_call_id": "c1", "content": {"results": []}}]
    assert request.system_text() == "sys"
