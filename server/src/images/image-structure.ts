/**
 * What every format's structure check gives back: the pixel size the file really holds
 * (its structure walked end to end, not its header believed), and for formats whose
 * pixels are cheap enough to check here (PNG), that check, run only once the size is
 * known to be within the caps (decoding a huge image is what the caps prevent).
 */
export interface ImageStructure {
  width: number;
  height: number;
  /** True when the pixel data is as long as the size says; absent where it is not checked. */
  pixelsComplete?: () => Promise<boolean>;
}
