import { css } from 'lit';

/**
 * Images: the thumbnails attached to the next question, with their upload state, and the
 * images a sent question carries.
 */
export const attachmentsStyles = css`
  .attachments {
    display: flex;
    flex-wrap: wrap;
    gap: 8px;
    list-style: none;
    padding: 0;
    max-width: var(--_max-width);
    margin: 0 auto 8px;
  }
  .attachment {
    position: relative;
    width: 64px;
    height: 64px;
    border: 1px solid var(--_border);
    border-radius: 8px;
    overflow: hidden;
  }
  .attachment img {
    width: 100%;
    height: 100%;
    object-fit: cover;
  }
  .attachment[data-state='uploading'] img {
    opacity: 0.5;
  }
  .attachment[data-state='failed'] {
    border-color: var(--_danger);
  }
  .attachment-state {
    position: absolute;
    inset: auto 0 0;
    font-size: 0.7em;
    padding: 1px 3px;
    background: var(--_bg);
    color: var(--_fg);
    white-space: nowrap;
    overflow: hidden;
    text-overflow: ellipsis;
  }
  .attachment[data-state='failed'] .attachment-state {
    color: var(--_danger);
  }
  .remove-attachment {
    position: absolute;
    top: 2px;
    right: 2px;
    padding: 0;
    width: 24px;
    height: 24px;
    display: inline-flex;
    align-items: center;
    justify-content: center;
    border-radius: 50%;
  }
  .message-images {
    display: flex;
    flex-wrap: wrap;
    gap: 6px;
    margin-bottom: 4px;
  }
  .message-images img {
    display: block;
    /* The width and height attributes give the box its shape before the image loads. */
    max-width: min(100%, 240px);
    max-height: 180px;
    height: auto;
    object-fit: contain;
    border-radius: 6px;
    background: var(--_bg);
  }
`;
