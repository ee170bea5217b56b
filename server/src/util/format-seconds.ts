/** A duration as people read it in a message: "30 s", "0.2 s" (one decimal at most). */
export const formatSeconds = (ms: number): string => `${Number((ms / 1000).toFixed(1))} s`;
