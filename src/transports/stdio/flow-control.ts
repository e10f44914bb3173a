/**
 * Backpressure for the stdio server: stop reading stdin while too much input waits for the engine
 * or too much output waits for the peer, and carry on below the low-water marks.
 */
import type { MessageReader } from './message-reader.js';
import type { MessageWriter } from './message-writer.js';
import type { MeteredInbox } from './metered-inbox.js';

/**
 * Default high-water mark of input read and parsed but not yet taken by the engine: 1 MiB.
 *
 * @example
 * new StdioServerTransport({ inputHighWaterMark: DEFAULT_INPUT_HIGH_WATER_MARK * 4 });
 */
export const DEFAULT_INPUT_HIGH_WATER_MARK = 1024 * 1024;
/**
 * Default high-water mark of output not yet taken by the peer: 1 MiB.
 *
 * @example
 * new StdioServerTransport({ outputHighWaterMark: DEFAULT_OUTPUT_HIGH_WATER_MARK / 4 });
 */
export const DEFAULT_OUTPUT_HIGH_WATER_MARK = 1024 * 1024;

/**
 * Backpressure marks of the stdio server, in bytes. A low-water mark defaults to a quarter of its
 * high-water mark, so that reading resumes in long stretches rather than line by line.
 *
 * @example
 * await serveStdio(server, { inputHighWaterMark: 256 * 1024, outputHighWaterMark: 4 * 1024 * 1024 });
 */
export interface StdioFlowOptions {
  /**
   * Stop reading stdin once the messages read but not yet taken by the engine reach this many
   * bytes (the engine stops taking them when it has too much in flight). Default 1 MiB.
   */
  inputHighWaterMark?: number | undefined;
  /** Read again once they are at or below this. Default a quarter of `inputHighWaterMark`. */
  inputLowWaterMark?: number | undefined;
  /**
   * Stop reading stdin once the output not yet taken by the peer (a peer that does not read
   * stdout) reaches this many bytes. Answers to what was already read still queue up. Default 1 MiB.
   */
  outputHighWaterMark?: number | undefined;
  /** Read again once it is at or below this. Default a quarter of `outputHighWaterMark`. */
  outputLowWaterMark?: number | undefined;
}

/**
 * What {@link FlowControl} saw, for monitoring and tests.
 *
 * @example
 * const { paused, peakQueuedOutputBytes } = transport.stats;
 */
export interface FlowStats {
  /** Bytes of the messages read and not yet taken by the engine. */
  bufferedInputBytes: number;
  /** Highest `bufferedInputBytes` seen. */
  peakBufferedInputBytes: number;
  /** Bytes of output sent and not yet taken by the peer. */
  queuedOutputBytes: number;
  /** Highest `queuedOutputBytes` seen. */
  peakQueuedOutputBytes: number;
  /** True while stdin is paused for backpressure. */
  paused: boolean;
  /** How many times stdin was paused for backpressure. */
  pauses: number;
}

/**
 * Watches an inbox and a writer, pauses and resumes a reader. `update()` is called by the inbox
 * after each push and take, and by the writer after each send, write and drain.
 *
 * @example
 * const flow = new FlowControl(inbox, writer, reader, { outputHighWaterMark: 65_536 });
 * flow.update();
 */
export class FlowControl {
  private readonly inputHigh: number;
  private readonly inputLow: number;
  private readonly outputHigh: number;
  private readonly outputLow: number;
  private peakInput = 0;
  private peakOutput = 0;
  private pauses = 0;

  constructor(
    private readonly inbox: MeteredInbox,
    private readonly writer: MessageWriter,
    private readonly reader: MessageReader,
    options: StdioFlowOptions = {},
  ) {
    this.inputHigh = mark(options.inputHighWaterMark, DEFAULT_INPUT_HIGH_WATER_MARK, 'inputHighWaterMark');
    this.outputHigh = mark(
      options.outputHighWaterMark,
      DEFAULT_OUTPUT_HIGH_WATER_MARK,
      'outputHighWaterMark',
    );
    this.inputLow = mark(options.inputLowWaterMark, Math.floor(this.inputHigh / 4), 'inputLowWaterMark');
    this.outputLow = mark(options.outputLowWaterMark, Math.floor(this.outputHigh / 4), 'outputLowWaterMark');
    if (this.inputLow > this.inputHigh) throw new RangeError('inputLowWaterMark is above inputHighWaterMark');
    if (this.outputLow > this.outputHigh)
      throw new RangeError('outputLowWaterMark is above outputHighWaterMark');
  }

  get stats(): FlowStats {
    return {
      bufferedInputBytes: this.inbox.bufferedBytes,
      peakBufferedInputBytes: this.peakInput,
      queuedOutputBytes: this.writer.queuedBytes,
      peakQueuedOutputBytes: this.peakOutput,
      paused: this.reader.isPaused,
      pauses: this.pauses,
    };
  }

  /** Re-check both sides; pause or resume the reader as the marks say. */
  update(): void {
    const input = this.inbox.bufferedBytes;
    const output = this.writer.queuedBytes;
    if (input > this.peakInput) this.peakInput = input;
    if (output > this.peakOutput) this.peakOutput = output;
    if (!this.reader.isPaused) {
      if (input >= this.inputHigh || output >= this.outputHigh) {
        this.pauses++;
        this.reader.pause();
      }
    } else if (input <= this.inputLow && output <= this.outputLow) {
      this.reader.resume();
    }
  }
}

function mark(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a finite number >= 0`);
  return value;
}
