/** The run facts (machine, repetitions, date) the report tests write reports with: fixed, so reports compare. */
export const TEST_RUN_INFO = {
  model: 'test CPU',
  memTotal: 1024 ** 3,
  cores: 2,
  node: 'v20',
  reps: 2,
  scale: 1,
  durationS: 60,
  date: '2026-01-01T00:00:00.000Z',
  loads: [],
};
