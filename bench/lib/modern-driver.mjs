// The 2026-07-28 load generator: no session, no handshake; every call is a self-contained POST
// (see wire-modern.mjs). `roundTrip()` is one `input_required` round: the call, the server's
// `input_required` answer asking for a sampling, the retry carrying the sampled text.
import {
  checkInputRequired,
  checkModernResult,
  modernEcho,
  modernHeaders,
  modernSampling,
} from './wire-modern.mjs';
import { echoText, sampledText, samplingPrompt } from './wire.mjs';

const ECHO = modernHeaders('echo');
const SAMPLING = modernHeaders('wait_sampling');

export class ModernClient {
  constructor(target) {
    this.target = target;
    this.nextId = 1;
  }

  /** POST one request; resolves with the message answering `id`. */
  async send(body, headers, id) {
    const answer = await this.target.post(body, headers);
    if (answer.status !== 200) {
      throw new Error(`tools/call: HTTP ${answer.status} ${JSON.stringify(answer.messages).slice(0, 200)}`);
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
}
