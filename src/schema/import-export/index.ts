import './export.js';
import './import.js';
