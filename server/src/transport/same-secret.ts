/**
 * Compares a secret a client sent with the configured one in constant time. Hashing
 * first gives both sides the same length, so the comparison takes as long wherever they
 * differ, and whatever their lengths.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}
