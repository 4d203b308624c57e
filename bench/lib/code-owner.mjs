// Whose code a script is, for CPU profiles: a package under node_modules, a Toolgate file under dist/, else its URL.

/** `@scope/name` or `name` of a package, `toolgate: <file>` of Toolgate's build, else the URL without `file://`. */
export function codeOwnerOf(url) {
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = path.slice(nm + 14).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const dist = path.indexOf('/dist/');
  if (dist >= 0) return `toolgate: ${path.slice(dist + 6).replace(/\.js$/, '')}`;
  return path;
}
