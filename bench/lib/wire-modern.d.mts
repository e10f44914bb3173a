// Types of wire-modern.mjs, for the tests that import it.
export const MODERN_VERSION: string;
export function modernHeaders(name: string): Record<string, string>;
export function modernEcho(id: number, text: string): string;
export function modernSampling(
  id: number,
  prompt: string,
  retry?: { key: string; text: string; requestState?: string },
): string;
export function checkModernResult(message: unknown, id: number, text: string): void;
export function checkInputRequired(
  message: unknown,
  id: number,
  prompt: string,
): { key: string; requestState?: string };
export const TASKS_EXTENSION: string;
export function modernTaskCall(id: number, text: string): string;
export function taskGetHeaders(taskId: string): Record<string, string>;
export function modernTaskGet(id: number, taskId: string): string;
export function checkTaskCreated(message: unknown, id: number): string;
export function checkTaskPoll(message: unknown, id: number, taskId: string, text: string): boolean;
