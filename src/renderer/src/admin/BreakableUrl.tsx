import { Fragment } from 'react';
import classes from './admin-layout.module.css';

/**
 * Where a web address may break to wrap and still read as one: after a slash (not inside "//"),
 * before a dot, "?", "&", "=" or "#". A piece still too long for its column breaks anywhere.
 */
export function urlPieces(url: string): string[] {
  return url.split(/(?<=[^/]\/)(?!\/)|(?<=^[a-z][a-z0-9+.-]*:\/\/)|(?=[.?&=#])/i).filter(Boolean);
}

/**
 * A web address in a table's cell that wraps inside its column rather than widening the table past
 * its box (a long address was cut at the box's edge until the table was scrolled sideways).
 */
export function BreakableUrl({ url }: { url: string }) {
  const pieces = urlPieces(url);
  return (
    <span className={classes.url}>
      {pieces.map((piece, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {piece}
        </Fragment>
      ))}
    </span>
  );
}

/** The class of a table cell holding a BreakableUrl: at least a readable line wide. */
export const urlCell = classes.urlCell;
