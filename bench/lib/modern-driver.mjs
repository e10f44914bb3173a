// The 2026-07-28 load generator: no session, no handshake; every call is a self-contained POST
// (see wire-modern.mjs). `roundTrip()` is one `input_required` round: the call, the server's
// `input_required` answer asking for a sampling, the retry carrying the sampled text.
// `taskRoundTrip()` is one task: `tools/call echo_task` answered with a task, then `tasks/get`
// until the task is completed (at most MAX_POLLS polls, back to back: no sleeps).
import {
  checkInputRequired,
  checkModernResult,
  checkTaskCreated,
  checkTaskPoll,
  modernEcho,
  modernHeaders,
  modernSampling,
  modernTaskCall,
  modernTaskGet,
  taskGetHeaders,
} from './wire-modern.mjs';
import { echoText, sampledText, samplingPrompt } from './wire.mjs';

const ECHO = modernHeaders('echo');
const SAMPLING = modernHeaders('wait_sampling');
const ECHO_TASK = modernHeaders('echo_task');

/**
 * Polls of one task before the round trip fails. `echo_task` finishes within the call's own turn,
 * so the first poll should find it completed; a task still `working` is polled again at once.
 */
export const MAX_POLLS = 16;

export class ModernClient {
  constructor(target) {
    this.target = target;
    this.nextId = 1;
    /** `tasks/get` requests sent by `taskRoundTrip()` so far. */
    this.polls = 0;
  }

  /** POST one request; resolves with the message answering `id`. */
  async send(body, headers, id) {
    const answer = await this.target.post(body, headers);
    if (answer.status !== 200) {
      throw new Error(
        `${headers['mcp-method']}: HTTP ${answer.status} ${JSON.stringify(answer.messages).slice(0, 200)}`,
      );
    }
    const message = answer.messages.find((m) => m.id === id);
    if (!message) throw new Error(`no answer for id ${id}: ${JSON.stringify(answer.messages).slice(0, 200)}`);
    return message;
  }

  async echo() {
    const id = this.nextId++;
    const text = echoText(id);
    checkModernResult(await this.send(modernEcho(id, text), ECHO, id), id, text);
  }

  async roundTrip() {
    const first = this.nextId++;
    const prompt = samplingPrompt(first);
    const asked = checkInputRequired(
      await this.send(modernSampling(first, prompt), SAMPLING, first),
      first,
      prompt,
    );
    const retry = this.nextId++;
    const text = sampledText(prompt);
    const body = modernSampling(retry, prompt, { ...asked, text });
    checkModernResult(await this.send(body, SAMPLING, retry), retry, text);
  }

  async taskRoundTrip() {
    const create = this.nextId++;
    const text = echoText(create);
    const taskId = checkTaskCreated(await this.send(modernTaskCall(create, text), ECHO_TASK, create), create);
    const headers = taskGetHeaders(taskId);
    for (let poll = 0; poll < MAX_POLLS; poll++) {
      const id = this.nextId++;
      this.polls++;
      if (checkTaskPoll(await this.send(modernTaskGet(id, taskId), headers, id), id, taskId, text)) return;
    }
    throw new Error(`task ${taskId} still working after ${MAX_POLLS} polls`);
  }
}
